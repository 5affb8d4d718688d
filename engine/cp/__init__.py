"""CP commands as values: one declarative grammar per verb, parsed to frozen command objects."""
