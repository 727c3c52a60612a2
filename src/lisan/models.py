"""Every domain's tables, imported in one place so Alembic and the tests see the whole schema."""

from lisan.core.database import Base

__all__ = ["Base"]
