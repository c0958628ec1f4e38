#!/usr/bin/env python3
"""Doxygen INPUT_FILTER: reads our headers' plain `//` comments as documentation.

    tools/doxygen/comment_filter.py FILE      (prints the filtered FILE)

Our public headers are written like V8's and Abseil's: a comment above each
declaration says what it does, in ordinary `//` comments that read well in an
editor. Doxygen only takes `///` or `/** */` comments as documentation, so
this filter rewrites, line for line (warnings keep their line numbers):

  * every block of `//` lines into `///` lines, the documentation of the
    declaration below it;
  * the copyright line at the top into `\\file`, which makes the comment
    below it the file's documentation;
  * a trailing `x;  // note` into `x;  ///< note`, except after `}` and
    preprocessor lines (`}  // namespace asyncctx`, `#endif  // GUARD_H_`);
  * a run of lines indented deeper than the text around them (an example, a
    table) into a code block, by turning the blank comment line before it into
    `\\code` and the one after it into `\\endcode` (or `\\verbatim` when no
    blank line precedes it).
"""

import re
import sys

COMMENT = re.compile(r"^(\s*)//(?!/)( ?)(.*)$")
TRAILING = re.compile(r"^(\s*[^\s#}/].*?;)(\s+)//(?!/) ?(.*)$")


def indent_of(text):
    return len(text) - len(text.lstrip(" "))


def convert_block(lines, first, last):
    """Rewrites comment lines [first, last] of `lines` in place."""
    body = []  # the text after `//`, with its indentation
    for i in range(first, last + 1):
        match = COMMENT.match(lines[i])
        body.append(match.group(2) + match.group(3))
    lead = COMMENT.match(lines[first]).group(1)

    # The indentation of prose is one space after `//`; deeper runs are
    # examples or tables.
    in_code = False
    for k, text in enumerate(body):
        deep = text.strip() != "" and indent_of(text) >= 3
        if deep and not in_code:
            if k > 0 and body[k - 1].strip() == "":
                body[k - 1] = " \\code"
                in_code = "code"
            else:
                body[k] = " \\verbatim" + text
                in_code = "verbatim"
            continue
        if in_code and not deep:
            closing = " \\end" + in_code
            if text.strip() == "":
                body[k] = closing
            else:
                body[k - 1] = body[k - 1] + closing
            in_code = False
    if in_code:
        body[-1] = body[-1] + " \\end" + in_code

    lines[first:last + 1] = [lead + "///" + text for text in body]


def filter_source(source):
    lines = source.split("\n")
    i = 0
    seen_code = False
    while i < len(lines):
        if COMMENT.match(lines[i]):
            j = i
            while j + 1 < len(lines) and COMMENT.match(lines[j + 1]):
                j += 1
            if not seen_code and lines[i].lstrip().startswith("// Copyright"):
                lines[i] = "/// \\file"  # the copyright is not documentation
                if i < j:
                    convert_block(lines, i + 1, j)
            else:
                convert_block(lines, i, j)
            i = j + 1
            continue
        if lines[i].strip():
            seen_code = True
            lines[i] = TRAILING.sub(r"\1\2///< \3", lines[i])
        i += 1
    return "\n".join(lines)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        sys.stdout.write(filter_source(f.read()))


if __name__ == "__main__":
    main()
