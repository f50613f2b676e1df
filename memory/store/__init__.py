"""The store, the only code that touches the database: SQLite or PostgreSQL, their migrations, copy-db."""
