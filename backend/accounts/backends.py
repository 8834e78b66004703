"""Password sign-in with the attempt limit at its root.

Every way to sign in with a password that hands Django the request (the admin's login page,
the browsable API's, any added later) goes through `authenticate(request, ...)`, so the limit
lives here: an address that has used up its failed sign-ins is refused before the password
is even checked, and every failure is counted (`count_failed_sign_in`). The REST token
endpoint answers 429 with `Retry-After` itself (`accounts.apis.TokenApi`), since its
service has no request to hand over.
"""

from __future__ import annotations

import contextlib
from typing import Any

from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.models import User
from django.contrib.auth.signals import user_login_failed
from django.core.exceptions import PermissionDenied, ValidationError
from django.dispatch import receiver
from django.http import HttpRequest
from rest_framework.exceptions import Throttled

from accounts import attempts
from config.errors import ServiceUnavailable


class LimitedModelBackend(ModelBackend):
    """Django's username and password check, refused once the address is over its limit."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> User | None:
        if request is not None:
            try:
                attempts.ensure_allowed(attempts.Attempt.SIGN_IN, attempts.client_address(request))
            except Throttled as error:
                # Stops `authenticate` at once: no other backend tries the password.
                raise PermissionDenied(str(error.detail)) from error
            except ServiceUnavailable as error:
                raise PermissionDenied(error.message) from error
        return super().authenticate(request, username=username, password=password, **kwargs)


@receiver(user_login_failed, dispatch_uid="accounts.count_failed_sign_in")
def count_failed_sign_in(
    sender: object, credentials: dict[str, Any], request: HttpRequest | None = None, **_: Any
) -> None:
    """Count a failed sign-in against the address it came from (when Django knows it)."""
    if request is not None:
        # Best effort: a failure was refused already, and with the counts away the next
        # attempt is refused too (`attempts.ensure_allowed` fails closed).
        with contextlib.suppress(ServiceUnavailable):
            attempts.record(attempts.Attempt.SIGN_IN, attempts.client_address(request))


class _LimitedSignIn(AuthenticationForm):
    def clean(self) -> dict[str, Any]:
        if self.request is not None:
            try:
                address = attempts.client_address(self.request)
                attempts.ensure_allowed(attempts.Attempt.SIGN_IN, address)
            except Throttled as error:
                raise ValidationError(str(error.detail), code="throttled") from error
            except ServiceUnavailable as error:
                raise ValidationError(error.message, code="unavailable") from error
        return super().clean()  # type: ignore[no-any-return]


class LimitedAuthenticationForm(_LimitedSignIn):
    """The browsable API's login form: says plainly when the address must wait, instead
    of calling the right password wrong."""


class LimitedAdminAuthenticationForm(_LimitedSignIn, AdminAuthenticationForm):
    """The admin's login form (staff only), limited the same way."""
