"""initData, checked as Telegram documents it: the hash, the age, nothing added."""

from __future__ import annotations

import urllib.parse

import pytest

from bot.config import DEFAULT_INITDATA_MAX_AGE
from bot.web.miniapp.initdata import InitDataError, WebAppUser, verify
from tests.support.miniapp import signed


def test_initdata_is_checked_as_telegram_documents():
    """The hash made by hand from Telegram's description, fields in any order, is accepted."""
    token = "123456:" + "A" * 35
    fields = {
        "user": '{"id":101,"first_name":"Anna","language_code":"nl"}',
        "auth_date": "1700000000",
        "signature": "abc",
        "query_id": "AAH",
    }
    init = signed(fields, token)
    digest = urllib.parse.parse_qs(init)["hash"][0]
    assert verify(init, token, now=1700000000 + 60) == WebAppUser(101, "Anna", "nl")
    with pytest.raises(InitDataError):
        verify(init, token, now=1700000000 + DEFAULT_INITDATA_MAX_AGE + 1)
    with pytest.raises(InitDataError):
        verify(init + "&extra=1", token, now=1700000000)
    with pytest.raises(InitDataError):
        verify(init.replace(digest, digest.upper()[:-1] + "Z"), token, now=1700000000)
