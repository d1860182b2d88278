"""GitLab's side of collection (REST v4, gitlab.com or a self-hosted instance): its client, mapping to
the store's rows, and the adapter the shared stages call (`adapter.GitLab`)."""
