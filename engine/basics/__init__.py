"""What a scenario can say: sizes and units, limits, configuration records, CP message
primitives and the workload types. Pure Python, no state."""
