"""File names that break naive quoting, one shared set for every test that needs them.

`hostile_names(marker)` maps a case to a relative path, "folder/stem" (no
extension: add ".py", ".json", ".html" as the test needs), hostile in one way
each. `marker` is an absolute path: a shell that ran any of these names as a
command would create it, so a test checks afterwards that it does not exist.

Used by tests/e2e/test_cli_hostile_paths.py (the CLI, local runs) and
tests/app/test_save_failures.cpp (the GUI: it runs `python3 hostile_names.py
MARKER`, which prints the cases as JSON). The remote quoting tests
(tests/e2e/test_cli_remote.py, test_hostile_model_paths) still keep their own
list; it has the same cases and strings but for the non-ASCII file name and
"markup", so they can switch to
`{k: v + ".py" for k, v in hostile_names(marker).items()}`.

A leading "-" is not among them: it is only hostile as a relative name on a
command line (see test_cli_hostile_paths.py's test_a_leading_dash).
"""

import json
import sys
from pathlib import Path


def hostile_names(marker: Path) -> dict[str, str]:
    return {
        "spaces": "a model dir/my model",
        "single quote": "it's/o'clock",
        "double quote": 'say "hi"/"m"',
        "command substitution": f"$(touch {marker})/m$(touch {marker})",
        "semicolon": f"a;touch {marker};b/m;touch {marker}",
        "backticks": f"`touch {marker}`/`touch {marker}`",
        "newline": "line\nbreak/m\nodel",
        "non-ascii": "modèle ü 模型/模型 ü",
        "markup": "<b>bold & <i>/<b>m<i>",
    }


if __name__ == "__main__":
    print(json.dumps(hostile_names(Path(sys.argv[1]))))
