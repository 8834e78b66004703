"""The browsable API's session sign-in and sign-out (its templates link to
`rest_framework:login`), with the sign-in attempt limit (`accounts.backends`)."""

from django.contrib.auth import views
from django.urls import path

from accounts.backends import LimitedAuthenticationForm

app_name = "rest_framework"
urlpatterns = [
    path(
        "login/",
        views.LoginView.as_view(
            template_name="rest_framework/login.html",
            authentication_form=LimitedAuthenticationForm,
        ),
        name="login",
    ),
    path("logout/", views.LogoutView.as_view(), name="logout"),
]
