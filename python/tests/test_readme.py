"""The example in the package's README runs as it is shown, and its tests pass."""

import pathlib
import re

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def test_the_readme_example_runs_and_its_tests_pass():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "the README shows a Python example"
    namespace = {}
    exec(compile(blocks[0], str(README), "exec"), namespace)
    tests = [value for name, value in namespace.items() if name.startswith("test_")]
    assert len(tests) == 2
    for test in tests:
        test()
