"""The command-line tools: thin shells over the library (train, evaluate, play, watch, replay, docs)."""
