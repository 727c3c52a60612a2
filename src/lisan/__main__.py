from lisan.cli import main

main()
