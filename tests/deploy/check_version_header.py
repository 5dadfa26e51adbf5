"""cmake/version.cmake, the build step that writes tether/version.h: the header names the
commit checked out at build time (a commit made after configuring included), is rewritten only
when its text changes (so an unchanged commit recompiles nothing), and without a checkout takes
the build environment's TETHER_GIT_COMMIT (the container build), else "unknown".

Usage: check_version_header.py SOURCE_DIR (the project, for cmake/version.*)
"""
import os
import re
import subprocess
import sys
import tempfile


def run(args, cwd=None, env=None, check=True):
    result = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    if check and result.returncode != 0:
        sys.exit(f"FAILED: {' '.join(args)} exited {result.returncode}: {result.stderr}")
    return result


def main():
    source = sys.argv[1]
    script = os.path.join(source, "cmake", "version.cmake")
    template = os.path.join(source, "cmake", "version.h.in")
    problems = []

    with tempfile.TemporaryDirectory() as work:
        env = dict(os.environ, GIT_CEILING_DIRECTORIES=work)
        env.pop("TETHER_GIT_COMMIT", None)
        header = os.path.join(work, "out", "tether", "version.h")

        def write_header(checkout, extra_env=None, defines=None):
            args = ["cmake", f"-DSOURCE_DIR={checkout}", f"-DTEMPLATE={template}",
                    f"-DOUTPUT={header}", "-DVERSION=9.8.7", "-DBUILD_TYPE=Release",
                    "-DCOMPILER=GNU 12.2.0"] + (defines or []) + ["-P", script]
            return run(args, env=dict(env, **(extra_env or {})), check=False)

        def commit_in_header():
            text = open(header).read()
            found = re.search(r'kGitCommit = "([^"]*)"', text)
            return found.group(1) if found else None

        repo = os.path.join(work, "repo")
        os.makedirs(repo)
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c",
               "commit.gpgsign=false"]
        run(["git", "init", "-q", repo], env=env)
        run(git + ["commit", "-q", "--allow-empty", "-m", "first"], cwd=repo, env=env)
        first = run(["git", "rev-parse", "--short", "HEAD"], cwd=repo, env=env).stdout.strip()

        result = write_header(repo)
        if result.returncode != 0:
            sys.exit(f"FAILED: version.cmake exited {result.returncode}: {result.stderr}")
        text = open(header).read()
        for expected in ['kVersion = "9.8.7"', f'kGitCommit = "{first}"',
                         'kBuildType = "Release"', 'kCompiler = "GNU 12.2.0"']:
            if expected not in text:
                problems.append(f"the header lacks {expected}:\n{text}")

        # Unchanged commit: the header keeps its time stamp, so nothing including it rebuilds.
        stamp = os.stat(header).st_mtime_ns
        os.utime(header, ns=(stamp - 10**9, stamp - 10**9))
        stamp = os.stat(header).st_mtime_ns
        write_header(repo)
        if os.stat(header).st_mtime_ns != stamp:
            problems.append("an unchanged commit rewrote the header (every user recompiles)")

        # A commit made after the last build (after configuring) shows at the next build.
        run(git + ["commit", "-q", "--allow-empty", "-m", "second"], cwd=repo, env=env)
        second = run(["git", "rev-parse", "--short", "HEAD"], cwd=repo, env=env).stdout.strip()
        write_header(repo)
        if commit_in_header() != second:
            problems.append(f"after a new commit the header names {commit_in_header()!r}, "
                            f"not {second!r}")

        # No checkout (a container's build context): the environment's commit, else "unknown".
        plain = os.path.join(work, "plain")
        os.makedirs(plain)
        write_header(plain, {"TETHER_GIT_COMMIT": "abc1234"})
        if commit_in_header() != "abc1234":
            problems.append(f"without a checkout and with TETHER_GIT_COMMIT=abc1234 the header "
                            f"names {commit_in_header()!r}")
        write_header(plain)
        if commit_in_header() != "unknown":
            problems.append(f"without a checkout or TETHER_GIT_COMMIT the header names "
                            f"{commit_in_header()!r}, not 'unknown'")

        # A missing input is named.
        result = run(["cmake", f"-DSOURCE_DIR={repo}", "-P", script], env=env, check=False)
        if result.returncode == 0 or "-DTEMPLATE" not in result.stderr:
            problems.append(f"a missing -DTEMPLATE was not named (exit {result.returncode}): "
                            f"{result.stderr}")

    for problem in problems:
        print("FAILED:", problem)
    if problems:
        sys.exit(1)
    print("version header: commit at build time, rewritten only on change, container fallback")


if __name__ == "__main__":
    main()
