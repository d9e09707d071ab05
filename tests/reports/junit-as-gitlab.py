#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""junit.xml as GitLab's test report reads it: one JSON line per test case.

After gitlabhq/gitlabhq lib/gitlab/ci/parsers/test/junit.rb: one top-level
testsuites, testsuite elements (nested too) holding testcase elements; a
case's status is failed when it has a failure (its text the details, and the
first [[ATTACHMENT|PATH]] of its system-out the attachment), error when an
error, skipped when skipped, else success.  Exit 2 when the file does not
parse (GitLab then shows a suite error instead of the cases).
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

ATTACHMENT = re.compile(r"\[\[ATTACHMENT\|(?P<path>[^\[\]\|]+?)\]\]")


def cases(node):
    for child in node:
        if child.tag == "testcase":
            yield node, child
        elif child.tag == "testsuite":
            yield from cases(child)


def main(path):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        print(f"{path}: JUnit XML parsing failed: {e}", file=sys.stderr)
        return 2
    if root.tag == "testsuite":
        root = [root]
    for suite, case in cases(root):
        status, details, attachment = "success", None, None
        for tag, st in (("failure", "failed"), ("error", "error"), ("skipped", "skipped")):
            el = case.find(tag)
            if el is not None:
                status, details = st, (el.text or "")
                break
        if status == "failed":
            m = ATTACHMENT.search(case.findtext("system-out") or "")
            attachment = m.group("path") if m else None
        print(json.dumps({"suite": suite.get("name"), "classname": case.get("classname"),
                          "name": case.get("name"), "status": status,
                          "details": details, "attachment": attachment}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
