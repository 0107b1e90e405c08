#!/usr/bin/env python3
"""Summarizes JUnit XML reports of lit and GoogleTest into one count.

Usage: summarize-tests.py LIT_XML GTEST_XML
Prints one line per suite and a last line 'tests: N passed, N failed'.
Exits 1 when a report is missing, holds no test, or records a failure.
"""

import sys
import xml.etree.ElementTree as ET


def count(path):
    """Returns (passed, failed, skipped) of the test cases in a report."""
    passed = failed = skipped = 0
    for case in ET.parse(path).getroot().iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif case.find("skipped") is not None or case.get("result") == "skipped":
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


def main(argv):
    ok = True
    total_passed = total_failed = 0
    for name, path in (("lit", argv[1]), ("GoogleTest", argv[2])):
        try:
            passed, failed, skipped = count(path)
        except (OSError, ET.ParseError) as error:
            print(f"{name}: no report ({error})")
            ok = False
            continue
        print(f"{name}: {passed + failed + skipped} tests, {passed} passed, "
              f"{failed} failed, {skipped} unsupported")
        if passed + failed == 0 or failed:
            ok = False
        total_passed += passed
        total_failed += failed
    print(f"tests: {total_passed} passed, {total_failed} failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
