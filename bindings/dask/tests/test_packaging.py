"""What `pip install ./bindings/dask` pulls is pinned: the package's dependencies and build
backend name exact versions, the same as requirements.txt."""

from __future__ import annotations

import re
import tomllib

from conftest import PACKAGE


def requirements() -> dict[str, str]:
    pins = {}
    for line in (PACKAGE / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"requirements.txt: '{line}' is not pinned with =="
            pins[name.lower()] = version
    return pins


def test_the_package_pins_what_it_installs_as_requirements_txt_does():
    project = tomllib.loads((PACKAGE / "pyproject.toml").read_text())
    pins = requirements()
    declared = project["project"]["dependencies"] + sum(project["project"]["optional-dependencies"].values(), [])
    for requirement in declared:
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)==([^,;\s]+)", requirement)
        assert match, f"pyproject.toml: '{requirement}' is not pinned with =="
        assert pins.get(match[1].lower()) == match[2], f"'{requirement}' differs from requirements.txt"
    for requirement in project["build-system"]["requires"]:
        assert re.fullmatch(r"[A-Za-z0-9_.-]+==[^,;\s]+", requirement), f"build requirement '{requirement}' is not pinned"
