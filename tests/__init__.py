"""The tests, in folders by what they drive: engine/, unit/<package>/, e2e/, processes/,
browser/ and emulator/. Fixtures are in conftest.py, helpers in support/, data files in data/."""
