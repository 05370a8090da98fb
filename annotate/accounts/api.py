"""REST API of accounts: who am I."""

from __future__ import annotations

from typing import cast

from django.contrib.auth.models import User
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.accounts.selectors import profile_of


class MeOutputSerializer(serializers.Serializer):
    username = serializers.CharField()
    role = serializers.CharField()
    is_staff = serializers.BooleanField()


class MeApi(APIView):
    @extend_schema(responses=MeOutputSerializer)
    def get(self, request: Request) -> Response:
        """Who the API sees you as"""
        profile = profile_of(user=cast(User, request.user))
        body = {
            "username": request.user.username,
            "role": profile.role,
            "is_staff": request.user.is_staff,
        }
        return Response(body)
