"""`python -m noru` is the `noru` command."""

from noru.cli import main

main()
