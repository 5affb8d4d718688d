"""The simulation core: clock, queue, events, the command processor and the workload driver."""
