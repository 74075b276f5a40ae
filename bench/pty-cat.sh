#!/bin/sh
# The Terminal lane's floor for a keystroke's echo (bench/terminal.ts): the PTY's own line discipline echoes
# what is typed, with cat reading it, and nothing else between the key and the screen. Its arguments (the
# CLI's) are ignored.
exec cat
