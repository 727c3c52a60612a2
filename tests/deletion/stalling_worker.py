"""A real worker process that stalls in the middle of a job, for the test that kills it:

    python -m tests.deletion.stalling_worker DATABASE_URL STORAGE_DIR MARKER

It claims the due job with a 1 s lease, writes MARKER once it is inside the storage step, and
then hangs there until it is killed."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from lisan.core.database import create_engine, create_session_factory
from lisan.core.settings import Settings
from lisan.deletion.worker import Worker


def main() -> None:
    database_url, storage_dir, marker = sys.argv[1:4]

    def stall(_storage: Path, _user_id: str) -> None:
        Path(marker).write_text("inside the storage step")
        while True:
            time.sleep(1)

    async def run() -> None:
        settings = Settings(database_url=database_url, storage_dir=Path(storage_dir))
        engine = create_engine(database_url, for_writes=True)
        worker = Worker(settings, create_session_factory(engine), lease_s=1.0, remove_objects=stall)
        await worker.run_one()

    asyncio.run(run())


if __name__ == "__main__":
    main()
