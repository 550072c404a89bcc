#!/usr/bin/env python3
"""docs/deployment.md's table of which inputs each command takes, against the binary.

Each row names flags in its first cell (`--model`, ...); each command column says which of them
the command takes: a cell starting with "no" means none, one starting with "yes" all of them,
any other cell exactly the row's flags it names (all of them when it names none). A command takes a flag when its
`--help` lists it as an option. Usage: check_flag_table.py KSPEED SOURCE_DIR [--self-test]
"""
import re
import subprocess
import sys

FLAG = re.compile(r"`(--[a-z0-9-]+)")
OPTION = re.compile(r"^\s+(?:-[a-zA-Z],)?(--[a-z0-9-]+)", re.M)


def parse_table(text):
    """(commands, rows): rows are (flags, {command: cell})."""
    start = text.index("## Which inputs each command takes")
    lines = [l for l in text[start:].splitlines() if l.startswith("|")]
    header = [c.strip().strip("`") for c in lines[0].strip("|").split("|")]
    commands = header[1:]
    rows = []
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows.append((FLAG.findall(cells[0]), dict(zip(commands, cells[1:]))))
    return commands, rows


def expected(flags, cell):
    if cell.lower().startswith("no"):
        return set()
    if cell.lower().startswith("yes"):
        return set(flags)
    named = {f for f in FLAG.findall(cell) if f in flags}
    return named if named else set(flags)


def check(commands, rows, options):
    problems = []
    for flags, cells in rows:
        for command in commands:
            want = expected(flags, cells[command])
            for flag in flags:
                takes = flag in options[command]
                if takes != (flag in want):
                    problems.append(f"{command} {flag}: the table says "
                                    f"{'it takes it' if flag in want else 'it does not'}, "
                                    f"--help says {'it does' if takes else 'it does not'}")
    return problems


def main():
    kspeed, source = sys.argv[1], sys.argv[2]
    with open(f"{source}/docs/deployment.md", encoding="utf-8") as f:
        commands, rows = parse_table(f.read())
    options = {}
    for command in commands:
        help_text = subprocess.run([kspeed, command, "--help"], capture_output=True, text=True,
                                   check=True).stdout
        options[command] = set(OPTION.findall(help_text))
    if len(rows) < 10 or sum(len(f) for f, _ in rows) < 20:
        print("flag_table: the table was not found whole in docs/deployment.md")
        return 1
    if "--self-test" in sys.argv:
        # A wrong cell must be caught: claim mix takes --response-tokens, and roofline --calibrate.
        for flags, cells in rows:
            if "--response-tokens" in flags:
                cells["mix"] = "yes"
            if "--calibrate" in flags:
                cells["roofline"] = "yes"
        caught = check(commands, rows, options)
        if not any("mix --response-tokens" in p for p in caught) or \
                not any("roofline --calibrate" in p for p in caught):
            print("flag_table: self-test: a wrong cell passed")
            return 1
        with open(f"{source}/docs/deployment.md", encoding="utf-8") as f:
            commands, rows = parse_table(f.read())
    problems = check(commands, rows, options)
    for problem in problems:
        print(f"docs/deployment.md: {problem}")
    if problems:
        return 1
    print(f"flag_table: {sum(len(f) for f, _ in rows)} flags x {len(commands)} commands match "
          "--help")
    return 0


if __name__ == "__main__":
    sys.exit(main())
