"""A real worker process that stalls in the middle of a job, for the test that kills it:

    python -m tests.deletion.stalling_worker DATABASE_URL STORAGE_DIR MARKER

It claims the due job (a 60 s lease: its storage step is bounded at 20 s, far past the moment
the test kills it), writes MARKER once it is inside the storage step, and then hangs there
until it is killed. The test then runs the lease out in the database rather than waiting."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from lisan.core.database import create_engine, create_session_factory
from lisan.core.settings import Settings
from lisan.worker import Worker


def main() -> None:
    database_url, storage_dir, marker = sys.argv[1:4]

    def stall(_storage: Path, _user_id: str) -> None:
        Path(marker).write_text("inside the storage step")
        while True:
            time.sleep(1)

    async def run() -> None:
        settings = Settings(database_url=database_url, storage_dir=Path(storage_dir))
        engine = create_engine(database_url, for_writes=True)
        worker = Worker(
            settings, create_session_factory(engine), lease_s=60.0, remove_objects=stall
        )
        await worker.run_one()

    asyncio.run(run())


if __name__ == "__main__":
    main()
