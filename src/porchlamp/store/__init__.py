"""The store: one DuckDB file, its migrations, idempotent upserts and Parquet export."""

from porchlamp.store.db import Store, StoreError, parse_ts
from porchlamp.store.schema import LATEST_VERSION, RAW_TABLES

__all__ = ["LATEST_VERSION", "RAW_TABLES", "Store", "StoreError", "parse_ts"]
