"""The world: members, guests and their page state, the narrow interface the parts see,
paging and CPU scheduling."""
