"""`python -m lisan`: the same command line as `lisan`."""

from lisan.cli import main

if __name__ == "__main__":  # not when a worker process imports it (multiprocessing spawn)
    main()
