"""Forgejo and Gitea (Codeberg and self-hosted instances) over REST v1: client, mapping, adapter."""
