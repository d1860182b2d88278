"""GitHub's side of collection: its GraphQL client, query documents, mapping to the store's rows, and the
adapter the shared stages call (`adapter.GitHub`)."""
