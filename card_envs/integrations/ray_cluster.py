"""A Ray cluster of several nodes on this machine, every listener on 127.0.0.1.

    python -m card_envs.integrations.ray_cluster --nodes 2 --port 6379
    python train.py --backend rllib --address 127.0.0.1:6379 --env-runners 2   # elsewhere

For trying the multi-node path (docs/scaling.md) on one machine. ``ray start`` cannot do
it: with Ray's cluster support on it resolves ``--node-ip-address 127.0.0.1`` to the
machine's outward address and binds listeners there, and with it off
(``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``) it refuses to add a second node. Ray's own
``ray.cluster_utils.Cluster`` starts the nodes here, with cluster support off in this
process only. The command holds the cluster until Ctrl-C or ``--seconds``.
"""

from __future__ import annotations

import argparse
import time

try:
    import ray
    from ray._private import ray_constants
    from ray.cluster_utils import Cluster
except ImportError as error:  # pragma: no cover - the extra is missing
    raise ImportError("Ray is not installed: pip install 'card-envs[rllib]'") from error


def start_local_cluster(nodes: int = 2, port: int = 6379, cpus_per_node: int = 1) -> Cluster:
    """Start ``nodes`` Ray nodes (the head and ``nodes - 1`` workers) on 127.0.0.1."""
    if nodes < 1 or cpus_per_node < 1:
        raise ValueError(f"nodes and cpus_per_node must be >= 1, got {nodes} and {cpus_per_node}")
    ray_constants.ENABLE_RAY_CLUSTER = False  # this node's address is 127.0.0.1
    head = {"num_cpus": cpus_per_node, "include_dashboard": False, "gcs_server_port": port}
    cluster = Cluster(initialize_head=True, head_node_args=head)
    for _ in range(nodes - 1):
        cluster.add_node(num_cpus=cpus_per_node)
    cluster.wait_for_nodes()
    return cluster


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--nodes", type=int, default=2, help="nodes, the head included (default: 2)")
    parser.add_argument("--port", type=int, default=6379, help="the head's port (default: 6379)")
    parser.add_argument("--cpus-per-node", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=None, help="stop after this long (default: Ctrl-C)")
    args = parser.parse_args(argv)
    try:
        cluster = start_local_cluster(args.nodes, args.port, args.cpus_per_node)
    except ValueError as error:
        parser.exit(2, f"{parser.prog}: error: {error}\n")
    print(f"Ray cluster of {args.nodes} nodes at {cluster.address}; Ctrl-C stops it", flush=True)
    try:
        deadline = None if args.seconds is None else time.monotonic() + args.seconds
        while deadline is None or time.monotonic() < deadline:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        ray.shutdown()
        cluster.shutdown()
        print("Ray cluster stopped", flush=True)


if __name__ == "__main__":
    main()
