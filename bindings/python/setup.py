"""Records the checkout a package is installed from, so that it finds the library in the checkout's
release build folder (.build/release) without SMARTSTACK_LIBRARY. Everything else is in
pyproject.toml."""
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildRecordingCheckout(build_py):
    def run(self):
        super().run()
        checkout = Path(__file__).resolve().parent.parent.parent
        if (checkout / "Package.swift").is_file() and (checkout / "include" / "smartstack.h").is_file():
            target = Path(self.build_lib) / "smartstack" / "_checkout.py"
            target.write_text(f"# Written by setup.py at install time.\nCHECKOUT = {str(checkout)!r}\n")


setup(cmdclass={"build_py": BuildRecordingCheckout})
