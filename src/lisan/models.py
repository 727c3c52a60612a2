"""Every domain's tables, imported in one place so Alembic and the tests see the whole schema."""

from lisan.admin.models import AdminCredential, AuditEvent
from lisan.auth.models import DeviceSession
from lisan.core.database import Base
from lisan.users.models import User

__all__ = ["AdminCredential", "AuditEvent", "Base", "DeviceSession", "User"]
