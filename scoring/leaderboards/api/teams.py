"""REST API of teams: one's own, create, the invitation link, join by it, leave."""

from __future__ import annotations

from typing import cast

from django.contrib.auth.models import User
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import page_response, paginated, validated_input
from scoring.leaderboards.models import Team
from scoring.leaderboards.selectors import teams as selectors
from scoring.leaderboards.services import teams as services


class TeamSerializer(serializers.ModelSerializer):
    members: serializers.Field = serializers.SlugRelatedField(
        slug_field="username", many=True, read_only=True
    )
    invitation_url = serializers.SerializerMethodField()

    class Meta:
        model = Team
        fields = ["id", "name", "members", "invitation_url", "created_at"]

    def get_invitation_url(self, team: Team) -> str | None:
        """The link that lets anyone holding it join (null until a member makes one)."""
        if not team.invitation_token:
            return None
        path = reverse("team-join", args=[team.invitation_token])
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request is not None else path


class TeamCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)


class TeamJoinSerializer(serializers.Serializer):
    token = serializers.CharField(max_length=64, help_text="The end of the invitation link.")


class TeamListApi(APIView):
    @extend_schema(responses=paginated(TeamSerializer))
    def get(self, request: Request) -> Response:
        """Your teams"""
        teams = selectors.teams_of_user(user=request.user)
        return page_response(request, teams, TeamSerializer, context={"request": request})

    @extend_schema(request=TeamCreateSerializer, responses={201: TeamSerializer})
    def post(self, request: Request) -> Response:
        """Create a team (you are its first member)"""
        fields = validated_input(TeamCreateSerializer, request)
        team = services.team_create(user=cast(User, request.user), name=fields["name"])
        body = TeamSerializer(team, context={"request": request}).data
        return Response(body, status=status.HTTP_201_CREATED)


class TeamDetailApi(APIView):
    @extend_schema(responses=TeamSerializer)
    def get(self, request: Request, team_id: int) -> Response:
        """A team of yours"""
        team = selectors.team_get_for_member(user=request.user, team_id=team_id)
        return Response(TeamSerializer(team, context={"request": request}).data)


class TeamInvitationApi(APIView):
    @extend_schema(request=None, responses=TeamSerializer)
    def post(self, request: Request, team_id: int) -> Response:
        """Make a new invitation link (the old one stops working)"""
        team = selectors.team_get_for_member(user=request.user, team_id=team_id)
        services.team_invitation_renew(team=team, user=cast(User, request.user))
        return Response(TeamSerializer(team, context={"request": request}).data)


class TeamLeaveApi(APIView):
    @extend_schema(request=None, responses={204: OpenApiResponse(description="You left the team")})
    def post(self, request: Request, team_id: int) -> Response:
        """Leave a team (its submissions stay with its members)"""
        team = selectors.team_get_for_member(user=request.user, team_id=team_id)
        services.team_leave(team=team, user=cast(User, request.user))
        return Response(status=status.HTTP_204_NO_CONTENT)


class TeamJoinApi(APIView):
    @extend_schema(request=TeamJoinSerializer, responses={200: TeamSerializer})
    def post(self, request: Request) -> Response:
        """Join a team by its invitation link's token"""
        fields = validated_input(TeamJoinSerializer, request)
        team = services.team_join(
            team=selectors.team_by_invitation(token=fields["token"]), user=cast(User, request.user)
        )
        return Response(TeamSerializer(team, context={"request": request}).data)
