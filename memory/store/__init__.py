"""What is remembered (Store), the usage meter, and the one database they share with the transport's store:
SQLite or PostgreSQL, their migrations, copy-db."""
