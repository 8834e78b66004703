"""REST authentication by API token, refusing a token past its age (`accounts.tokens`)."""

from __future__ import annotations

from typing import Any

from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

from accounts.tokens import token_expired


class ExpiringTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        user, token = super().authenticate_credentials(key)
        if token_expired(token):
            raise AuthenticationFailed("The API token has expired: sign in again for a new one.")
        return user, token
