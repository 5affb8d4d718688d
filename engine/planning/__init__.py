"""The planner's tools: sweeps, benchmarks and validation against published measurements."""
