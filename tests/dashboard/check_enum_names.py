"""The dashboard's enum value names are the wire's.

The dashboard reads the API's JSON, where enum values travel by name (EVENT_KIND_WARNING), and
keys its styles and filters on those names. A misspelt or renamed value would not fail there: the
event would lose its colour, a column its plot. This check holds every such name in
server/dashboard/*.js to proto/tether/v1/simulation_service.proto: a token that starts with an
enum's value prefix (EVENT_KIND_, COLUMN_KIND_, …) must be one of that enum's values, or the
prefix itself (the dashboard strips it for labels).

Usage: check_enum_names.py PROTO DASHBOARD_DIR   (exit 0, or 1 listing each unknown name)
"""
import pathlib
import re
import sys

ENUM = re.compile(r"^enum (\w+) \{(.*?)^\}", re.S | re.M)
VALUE = re.compile(r"^\s*([A-Z][A-Z0-9_]*)\s*=\s*-?\d+\s*;", re.M)
TOKEN = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]*")


def enum_values(proto_text):
    """{value prefix: set of value names} for each top-level enum of the proto."""
    enums = {}
    for name, body in ENUM.findall(proto_text):
        values = VALUE.findall(body)
        if not values:
            continue
        prefix = values[0][: values[0].rfind("_") + 1]
        while not all(v.startswith(prefix) for v in values):
            prefix = prefix[: prefix[:-1].rfind("_") + 1]
        if prefix:
            enums[prefix] = set(values)
    return enums


def unknown_names(enums, path):
    problems = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        for token in TOKEN.findall(line):
            for prefix, values in enums.items():
                if token.startswith(prefix) and token != prefix and token not in values:
                    problems.append(f"{path}:{number}: {token} is not a value of the proto's "
                                    f"{prefix}* enum")
    return problems


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    enums = enum_values(pathlib.Path(argv[1]).read_text(encoding="utf-8"))
    if len(enums) < 5:
        print(f"{argv[1]}: found {len(enums)} enums; the parser no longer reads this proto",
              file=sys.stderr)
        return 1
    scripts = sorted(pathlib.Path(argv[2]).glob("*.js"))
    problems = [p for script in scripts for p in unknown_names(enums, script)]
    for problem in problems:
        print(problem, file=sys.stderr)
    checked = sum(1 for s in scripts for t in TOKEN.findall(s.read_text(encoding="utf-8"))
                  if any(t.startswith(prefix) for prefix in enums))
    print(f"{checked} enum names in {len(scripts)} scripts checked against {len(enums)} enums")
    if checked == 0:
        print("no enum name found: the dashboard's scripts moved?", file=sys.stderr)
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
