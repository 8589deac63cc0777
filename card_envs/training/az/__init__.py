"""Search in the loop: networks trained on what a Gumbel search with them finds (``train.py --algo az``)."""
