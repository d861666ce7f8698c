"""Fixtures shared by the tests: the service's address, and a fresh session with its token.

The address comes from API_BASE_URL (as `grade` sets it, with no trailing slash), so that the
same suite runs against a local server, a class server, or each broken service `grade` starts.
"""
import os
import re

import pytest
import requests

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


@pytest.fixture(scope="session")
def base():
    url = os.environ.get("API_BASE_URL")
    if not url:
        pytest.exit("API_BASE_URL is not set: export API_BASE_URL=http://127.0.0.1:3000", returncode=2)
    return url.rstrip("/")


@pytest.fixture
def http():
    """One connection pool per test; every request has a timeout, so a hung server fails the test."""
    with requests.Session() as session:
        yield session


class Learner:
    """A session of the service: its id (X-CHALLENGER) and its token (X-AUTH-TOKEN)."""

    def __init__(self, base, http):
        self.base = base
        self.http = http
        created = http.post(f"{base}/challenger", timeout=10)
        assert created.status_code == 201
        self.guid = created.headers["X-Challenger"]
        assert UUID.match(self.guid)
        issued = http.post(f"{base}/secret/token", auth=("admin", "password"),
                           headers={"X-Challenger": self.guid}, timeout=10)
        assert issued.status_code == 201
        self.token = issued.headers["X-Auth-Token"]
        assert re.fullmatch(r"[0-9a-f]{32}", self.token)

    def read_note(self, headers=None):
        """GET /secret/note with this session's id and its token; `headers` adds or replaces some (None drops one)."""
        sent = {"X-Challenger": self.guid, "X-Auth-Token": self.token, **(headers or {})}
        sent = {name: value for name, value in sent.items() if value is not None}
        return self.http.get(f"{self.base}/secret/note", headers=sent, timeout=10)

    def write_note(self, note, token=None):
        return self.http.post(f"{self.base}/secret/note", json={"note": note}, timeout=10,
                              headers={"X-Challenger": self.guid, "X-Auth-Token": token or self.token})


@pytest.fixture
def learner(base, http):
    return Learner(base, http)


@pytest.fixture
def other(base, http):
    """A second learner, for what one session must not do to another."""
    return Learner(base, http)
