"""What the world and its migrations look like from outside: the cluster protocol lessons and
commands use, the samples and the move snapshots."""
