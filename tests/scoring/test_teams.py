"""Teams in the UI and the API: create, invitation link, join, leave; a team's submissions are its
members'."""

import re

import pytest
from django.core.exceptions import ValidationError

from scoring.leaderboards.models import Team
from scoring.leaderboards.services.teams import team_create, team_invitation_renew
from tests.scoring.conftest import GOOD

pytestmark = pytest.mark.django_db


@pytest.fixture
def team(other):
    return team_create(user=other, name="Night Owls")


def test_create_a_team_on_the_page_and_see_it(client_for, other):
    client = client_for(other)
    response = client.post("/leaderboards/teams/", {"name": "Night Owls"})
    team = Team.objects.get(name="Night Owls")
    assert response.status_code == 302 and response["Location"] == f"/leaderboards/teams/{team.pk}/"
    assert list(team.members.all()) == [other] and team.created_by == other
    listing = client.get("/leaderboards/teams/").content.decode()
    assert "Night Owls" in listing


@pytest.mark.parametrize(
    ("name", "message"),
    [("", "required|blank"), ("Night Owls", "exists"), ("owner", "username"), ("x" * 101, "100")],
)
def test_bad_names_are_a_400_naming_the_field(client_for, other, owner, team, name, message):
    page = client_for(other).post("/leaderboards/teams/", {"name": name})
    assert page.status_code == 400 and re.search(message, page.content.decode())
    api = client_for(other).post("/api/v1/teams/", {"name": name}, format="json")
    assert api.status_code == 400 and re.search(message, str(api.json()["name"]))


def test_a_name_taken_between_the_check_and_the_write_is_a_400(
    client_for, other, owner, monkeypatch
):
    # Two requests creating one name at once both pass the check; the second write used to
    # end in the unique constraint's IntegrityError, a 500.
    from scoring.leaderboards.services import teams

    def taken_meanwhile(*, name):
        Team.objects.create(name=name, created_by=owner)
        return False

    monkeypatch.setattr(teams, "team_username_taken", taken_meanwhile)
    api = client_for(other).post("/api/v1/teams/", {"name": "Racers"}, format="json")
    assert api.status_code == 400 and "exists" in str(api.json()["name"])
    assert list(Team.objects.filter(name="Racers").values_list("created_by", flat=True)) == [
        owner.pk
    ]


def test_ones_own_team_is_named_after_one_unless_another_has_the_name(other, owner):
    from scoring.leaderboards.services.submissions import team_for

    mine = team_for(user=other)
    assert (mine.name, list(mine.members.all())) == (other.username, [other])
    assert team_for(user=other) == mine
    empty = Team.objects.create(name=owner.username)  # a first upload's team, before its member
    assert team_for(user=owner) == empty and list(empty.members.all()) == [owner]
    Team.objects.filter(pk=empty.pk).update(name="renamed")
    Team.objects.create(name=owner.username).members.add(other)  # someone else's, by that name
    with pytest.raises(ValidationError, match="a team has your username"):
        team_for(user=owner)


def test_invite_by_link_join_and_leave(client_for, other, owner, team):
    client = client_for(other)
    assert client.post(f"/leaderboards/teams/{team.pk}/invitation/").status_code == 302
    team.refresh_from_db()
    link = f"/leaderboards/teams/join/{team.invitation_token}/"
    assert link in client.get(f"/leaderboards/teams/{team.pk}/").content.decode()
    joiner = client_for(owner)
    assert "Join Night Owls" in joiner.get(link).content.decode()
    assert joiner.post(link).status_code == 302
    assert set(team.members.values_list("username", flat=True)) == {"other", "owner"}
    # Renewing the link revokes the old one.
    client.post(f"/leaderboards/teams/{team.pk}/invitation/")
    assert client_for(owner).get(link).status_code == 404
    assert joiner.post(f"/leaderboards/teams/{team.pk}/leave/").status_code == 302
    assert list(team.members.all()) == [other]
    assert joiner.get(f"/leaderboards/teams/{team.pk}/").status_code == 404


def test_the_api_creates_invites_joins_and_leaves(client_for, other, owner):
    client = client_for(other)
    created = client.post("/api/v1/teams/", {"name": "Larks"}, format="json")
    assert created.status_code == 201 and created.json()["members"] == ["other"]
    pk = created.json()["id"]
    assert created.json()["invitation_url"] is None
    invited = client.post(f"/api/v1/teams/{pk}/invitation/").json()
    token = invited["invitation_url"].rstrip("/").rsplit("/", 1)[1]
    assert invited["invitation_url"].startswith("http://testserver/leaderboards/teams/join/")
    joined = client_for(owner).post("/api/v1/teams/join/", {"token": token}, format="json")
    assert joined.status_code == 200 and sorted(joined.json()["members"]) == ["other", "owner"]
    again = client_for(owner).post("/api/v1/teams/join/", {"token": token}, format="json")
    assert again.status_code == 400 and "already" in str(again.json()["token"])
    assert [t["name"] for t in client_for(owner).get("/api/v1/teams/").json()["results"]] == [
        "Larks"
    ]
    assert client_for(owner).post(f"/api/v1/teams/{pk}/leave/").status_code == 204
    assert client_for(owner).get(f"/api/v1/teams/{pk}/").status_code == 404
    bad = client_for(owner).post("/api/v1/teams/join/", {"token": "nope"}, format="json")
    assert bad.status_code == 404
    assert client_for(owner).post("/api/v1/teams/join/", {}, format="json").json() == {
        "token": ["This field is required."]
    }


@pytest.mark.parametrize(
    ("who", "page", "api"),
    [("other", 200, 200), ("owner", 404, 404), ("rater", 404, 404), ("anonymous", 302, 403)],
)
def test_a_team_is_its_members_alone(client_for, user_named, team, who, page, api):
    client = client_for(user_named(who))
    assert client.get(f"/leaderboards/teams/{team.pk}/").status_code == page
    assert client.get(f"/api/v1/teams/{team.pk}/").status_code == api
    expected = {"other": (302, 200), "anonymous": (302, 403)}.get(who, (404, 404))
    assert client.post(f"/leaderboards/teams/{team.pk}/invitation/").status_code == expected[0]
    assert client.post(f"/api/v1/teams/{team.pk}/invitation/").status_code == expected[1]
    leave = (204 if who == "other" else expected[1], 302 if who == "anonymous" else 404)
    assert client.post(f"/api/v1/teams/{team.pk}/leave/").status_code == leave[0]
    assert client.post(f"/leaderboards/teams/{team.pk}/leave/").status_code == leave[1]


def test_raters_cannot_make_or_join_teams(client_for, rater, team, other):
    token = team_invitation_renew(team=team, user=other)
    client = client_for(rater)
    assert client.post("/leaderboards/teams/", {"name": "Raters"}).status_code == 403
    assert client.post("/api/v1/teams/", {"name": "Raters"}, format="json").status_code == 403
    assert client.post(f"/leaderboards/teams/join/{token}/").status_code == 403
    assert client.post("/api/v1/teams/join/", {"token": token}, format="json").status_code == 403
    assert not team.members.filter(pk=rater.pk).exists()


def test_anonymous_visitors_are_sent_to_log_in(client_for, team, other):
    token = team_invitation_renew(team=team, user=other)
    client = client_for(None)
    for path in ("/leaderboards/teams/", f"/leaderboards/teams/join/{token}/"):
        response = client.get(path)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert client.get("/api/v1/teams/").status_code == 403


def test_a_teams_submissions_are_its_members(
    make_leaderboard, client_for, other, owner, scored, team
):
    from annotate.accounts.services import user_create
    from tests.conftest import PASSWORD

    board = make_leaderboard()
    submission = scored(board, other, GOOD, team_name="Night Owls", is_public=False)
    mate = user_create(username="mate", password=PASSWORD, role="researcher")
    assert client_for(mate).get(f"/api/v1/submissions/{submission.pk}/").status_code == 404
    team.members.add(mate)
    assert client_for(mate).get(f"/api/v1/submissions/{submission.pk}/").status_code == 200
    page = client_for(mate).get("/leaderboards/board/").content.decode()
    assert 'id="my-submissions"' in page and f"/leaderboards/submissions/{submission.pk}/" in page
    team.members.remove(mate)
    assert client_for(mate).get(f"/api/v1/submissions/{submission.pk}/").status_code == 404


def test_the_upload_form_offers_ones_teams(make_leaderboard, client_for, other, team):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.runs_kit import upload

    board = make_leaderboard()
    form = client_for(other).get("/leaderboards/board/submit/").content.decode()
    assert "Just me (a team named other)" in form and '<option value="Night Owls">' in form
    data = ("\n".join(GOOD) + "\n").encode()
    response = client_for(other).post(
        "/leaderboards/board/submit/",
        {"file": SimpleUploadedFile("out.txt", data), "method": "m", "team": "Night Owls"},
    )
    assert response.status_code == 302
    assert board.submissions.get().team == team
    upload(board, other, GOOD)  # a personal team appears once, as "just me"
    form = client_for(other).get("/leaderboards/board/submit/").content.decode()
    assert form.count('value="other"') == 0
    refused = client_for(other).post(
        "/leaderboards/board/submit/",
        {"file": SimpleUploadedFile("out.txt", data), "method": "m", "team": "Strangers"},
    )
    assert refused.status_code == 400 and "Select a valid choice" in refused.content.decode()
