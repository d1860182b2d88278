"""Publishing: a static site and a versioned dataset from one evaluated snapshot in the store."""

from porchlamp.publish.data import SiteData, load_site_data, safe_url
from porchlamp.publish.site import PublishSummary, publish

__all__ = ["PublishSummary", "SiteData", "load_site_data", "publish", "safe_url"]
