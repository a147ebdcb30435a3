"""``python -m accelerators.cli``: the same as the ``accelerators`` console script."""

from accelerators.cli import main

if __name__ == "__main__":
    main()
