"""The one door to the database: the engine and its trouble, the migrations, the prepared
statements and the raw drivers (asyncpg, sqlite3) that run them, the writer, the look-ups, the
column types, and what a process or a command holds of them. Only this package imports a
database driver; the domains reach the database through it, and `lisan.core` never imports it."""
