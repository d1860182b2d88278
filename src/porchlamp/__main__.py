"""`python -m porchlamp` runs the command line."""

from porchlamp.cli import main

main()
