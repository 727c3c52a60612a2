"""Every domain's tables, imported in one place so Alembic and the tests see the whole schema."""

from lisan.admin.models import AdminCredential, AuditEvent
from lisan.auth.models import DeviceSession
from lisan.billing.models import BilledCommand, Subscription
from lisan.commands.models import IdempotencyRecord
from lisan.consent.models import ConsentGrant
from lisan.db.database import Base
from lisan.deletion.models import DeletionJob
from lisan.grants.models import AppGrant
from lisan.telemetry.models import CommandEvent
from lisan.users.models import User
from lisan.vocabulary.models import VocabularyCount, VocabularyTerm

__all__ = [
    "AdminCredential",
    "AppGrant",
    "AuditEvent",
    "Base",
    "BilledCommand",
    "CommandEvent",
    "ConsentGrant",
    "DeletionJob",
    "DeviceSession",
    "IdempotencyRecord",
    "Subscription",
    "User",
    "VocabularyCount",
    "VocabularyTerm",
]
