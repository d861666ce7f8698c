"""The secret note and heartbeat API, tested with pytest and requests.

Each test checks what a client relies on: the exact status, the headers that are part of the
contract, the body, and that a write is kept (read it back). Run it with
`API_BASE_URL=http://127.0.0.1:3000 python3 -m pytest examples/pytest`; README.md says how to grade it.
"""
JSON = "application/json; charset=utf-8"
XML = "application/xml; charset=utf-8"


def test_create_session_is_201_with_its_id_and_progress_page(base, http):
    created = http.post(f"{base}/challenger", timeout=10)
    assert created.status_code == 201
    guid = created.headers["X-Challenger"]
    assert created.headers["Location"] == f"/gui/challenges/{guid}"


def test_answers_to_a_session_echo_its_id(base, http, learner):
    challenges = http.get(f"{base}/challenges", headers={"X-Challenger": learner.guid}, timeout=10)
    assert challenges.status_code == 200
    assert challenges.headers["Content-Type"] == JSON
    assert challenges.headers.get("X-Challenger") == learner.guid
    assert learner.read_note().headers.get("X-Challenger") == learner.guid


def test_token_needs_the_right_password_and_a_wrong_one_is_challenged(base, http, learner):
    refused = http.post(f"{base}/secret/token", auth=("admin", "wrong"),
                        headers={"X-Challenger": learner.guid}, timeout=10)
    assert refused.status_code == 401
    assert refused.headers.get("WWW-Authenticate") == 'Basic realm="User Visible Realm"'
    assert "X-Auth-Token" not in refused.headers
    anonymous = http.post(f"{base}/secret/token", headers={"X-Challenger": learner.guid}, timeout=10)
    assert anonymous.status_code == 401
    assert anonymous.headers.get("WWW-Authenticate", "").startswith("Basic")


def test_note_is_empty_then_written_with_200_and_read_back(learner):
    first = learner.read_note()
    assert first.status_code == 200
    assert first.headers["Content-Type"] == JSON
    assert first.json() == {"note": ""}
    written = learner.write_note("first")
    assert written.status_code == 200
    assert written.headers["Content-Type"] == JSON
    assert written.json() == {"note": "first"}
    assert learner.write_note("second").status_code == 200
    assert learner.read_note().json() == {"note": "second"}


def test_note_keeps_exactly_100_characters(learner):
    assert learner.write_note("a" * 100).json() == {"note": "a" * 100}
    assert learner.read_note().json() == {"note": "a" * 100}
    assert learner.write_note("b" * 101).json() == {"note": "b" * 100}
    assert learner.read_note().json() == {"note": "b" * 100}


def test_note_refuses_401_without_a_token_and_403_with_a_wrong_one(learner, other):
    assert learner.write_note("mine").status_code == 200
    missing = learner.read_note({"X-Auth-Token": None})
    assert missing.status_code == 401
    assert missing.headers["Content-Type"] == JSON
    assert isinstance(missing.json()["errorMessages"], list)
    assert learner.read_note({"X-Auth-Token": "not-a-token"}).status_code == 403
    assert learner.read_note({"X-Auth-Token": other.token}).status_code == 403, "another session's token"
    assert learner.write_note("theirs", token=other.token).status_code == 403
    assert learner.read_note().json() == {"note": "mine"}, "the refused write changed nothing"


def test_bearer_wins_over_x_auth_token(learner):
    right = learner.read_note({"Authorization": f"Bearer {learner.token}", "X-Auth-Token": "wrong"})
    assert right.status_code == 200
    wrong = learner.read_note({"Authorization": "Bearer wrong", "X-Auth-Token": learner.token})
    assert wrong.status_code == 403


def test_note_in_xml_when_asked_and_406_for_what_it_cannot_send(learner):
    learner.write_note("in xml")
    xml = learner.read_note({"Accept": "application/xml"})
    assert xml.status_code == 200
    assert xml.headers["Content-Type"] == XML
    assert xml.text == '<?xml version="1.0" encoding="UTF-8"?><secretnote><note>in xml</note></secretnote>'
    assert learner.read_note({"Accept": "image/png"}).status_code == 406


def test_bad_note_bodies_415_and_400(base, http, learner):
    headers = {"X-Challenger": learner.guid, "X-Auth-Token": learner.token}
    text = http.post(f"{base}/secret/note", data="hi", timeout=10, headers={**headers, "Content-Type": "text/plain"})
    assert text.status_code == 415
    broken = http.post(f"{base}/secret/note", data='{"note":', timeout=10,
                       headers={**headers, "Content-Type": "application/json"})
    assert broken.status_code == 400


def test_heartbeat(base, http):
    alive = http.get(f"{base}/heartbeat", timeout=10)
    assert alive.status_code == 204
    assert alive.content == b""
    assert http.patch(f"{base}/heartbeat", timeout=10).status_code == 500
    assert http.post(f"{base}/heartbeat", timeout=10).status_code == 405


def test_heartbeat_method_override(base, http):
    statuses = {method: http.post(f"{base}/heartbeat", headers={"X-HTTP-Method-Override": method}, timeout=10).status_code
                for method in ("DELETE", "PATCH", "TRACE")}
    assert statuses == {"DELETE": 405, "PATCH": 500, "TRACE": 501}

