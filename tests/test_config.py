from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from porchlamp.config import DEFAULT_PROFILES, ConfigError, Settings, load_settings, settings_from_dict


def test_defaults_are_the_method() -> None:
    s = Settings()
    assert s.window.days == 183 and s.window.response_days == 14 and s.window.brand_new_account_days == 30
    assert s.black_hole.min_outside_prs == 10 and s.black_hole.confidence == 0.95 and s.black_hole.bound == 0.5
    assert s.unrated.min_outside_prs == 3 and s.unrated.min_coverage == 0.5
    assert (s.tiers.a, s.tiers.b, s.tiers.c, s.tiers.cap_coverage) == (80, 65, 50, 0.8)
    assert s.profiles["default"] == {"responsiveness": 40, "accessibility": 15, "governance": 15, "dependents": 15, "review_ci": 15}
    assert set(s.profiles) == {"default", "first-contribution", "career", "systems", "ai-assisted"}
    assert all(sum(w.values()) == 100 for w in DEFAULT_PROFILES.values())


def test_no_file_means_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert load_settings() == Settings()


def test_bad_value_names_key_and_range(tmp_path: Path) -> None:
    f = tmp_path / "porchlamp.toml"
    f.write_text("[black_hole]\nmin_outside_prs = 0\n")
    with pytest.raises(ConfigError) as err:
        load_settings(f)
    msg = str(err.value)
    assert "black_hole.min_outside_prs" in msg and ">= 1" in msg and "got 0" in msg


def test_unknown_key_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "porchlamp.toml"
    f.write_text("[window]\ndayz = 10\n")
    with pytest.raises(ConfigError, match=r"unknown key 'window.dayz'"):
        load_settings(f)


def test_invalid_toml_and_missing_file(tmp_path: Path) -> None:
    f = tmp_path / "bad.toml"
    f.write_text("[window\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings(f)
    with pytest.raises(ConfigError, match="not found"):
        load_settings(tmp_path / "nope.toml")


def test_profiles_merge_and_validate() -> None:
    s = settings_from_dict({"profiles": {"default": {"responsiveness": 100}}})
    assert s.profiles["default"] == {"responsiveness": 100}
    assert s.profiles["career"] == DEFAULT_PROFILES["career"]  # untouched profiles keep their defaults
    with pytest.raises(ConfigError, match="unknown component 'speed'"):
        settings_from_dict({"profiles": {"fast": {"speed": 10}}})
    with pytest.raises(ConfigError, match="between 0 and 100"):
        settings_from_dict({"profiles": {"default": {"responsiveness": 500}}})


def test_tier_cutoffs_must_be_ordered() -> None:
    with pytest.raises(ConfigError, match="a >= b >= c"):
        settings_from_dict({"tiers": {"a": 60, "b": 70}})


@given(st.integers(min_value=-1000, max_value=2000))
def test_window_days_accepted_exactly_in_range(days: int) -> None:
    if 28 <= days <= 730:
        assert settings_from_dict({"window": {"days": days}}).window.days == days
    else:
        with pytest.raises(ConfigError, match="window.days"):
            settings_from_dict({"window": {"days": days}})
