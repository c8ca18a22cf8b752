// Tests for redact.h: passwords and tokens in URL userinfo are replaced,
// everything else (user names, hosts, paths, text around URLs) is kept.
#include "net/redact.h"

#include <gtest/gtest.h>

namespace kubeon::net {
namespace {

TEST(RedactUrl, ReplacesThePasswordAndKeepsTheUser) {
  EXPECT_EQ(RedactUrl("https://alice:s3cret@prom.example:9090/api"), "https://alice:***@prom.example:9090/api");
  EXPECT_EQ(RedactUrl("http://u:p@h"), "http://u:***@h");
}

TEST(RedactUrl, ATokenAsUserNameIsReplacedWhole) {
  EXPECT_EQ(RedactUrl("https://ghp_TOKEN@host/x"), "https://***@host/x");
}

TEST(RedactUrl, PasswordsContainingAtSignsAndColonsAreCoveredUpToTheLastAt) {
  EXPECT_EQ(RedactUrl("https://u:a@b:c@host:1/p?q=1"), "https://u:***@host:1/p?q=1");
}

TEST(RedactUrl, UrlsWithoutUserinfoAreUnchanged) {
  for (const char* url : {"https://host:6443", "http://h/p@q", "https://h?x=a@b", "", "not a url", "://"}) {
    EXPECT_EQ(RedactUrl(url), url);
  }
}

TEST(RedactUrl, WithoutASchemeTheAuthorityStartsTheText) {
  EXPECT_EQ(RedactUrl("user:pw@host:9090/x"), "user:***@host:9090/x");
}

TEST(RedactUrlsInText, RedactsEveryUrlInALine) {
  EXPECT_EQ(RedactUrlsInText("cannot reach Prometheus at https://a:b@h1:9090: refused; see \"http://c:d@h2/\""),
            "cannot reach Prometheus at https://a:***@h1:9090: refused; see \"http://c:***@h2/\"");
}

TEST(RedactUrlsInText, StopsAtWhitespaceAndQuotesSoTheNextWordIsKept) {
  EXPECT_EQ(RedactUrlsInText("url 'https://x:y@h' and mail a@b.c"), "url 'https://x:***@h' and mail a@b.c");
  EXPECT_EQ(RedactUrlsInText("no urls here: a@b"), "no urls here: a@b");
  EXPECT_EQ(RedactUrlsInText("ends with https://"), "ends with https://");
}

TEST(RedactUrlsInText, ThePasswordNeverSurvives) {
  const std::string secret = "Pa55w0rd";
  for (const std::string& text :
       {"https://u:" + secret + "@h", "x https://u:" + secret + "@h:1/p y", "(http://u:" + secret + "@h)",
        "https://" + secret + "@h", "a://b https://u:" + secret + "@h"}) {
    EXPECT_EQ(RedactUrlsInText(text).find(secret), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace kubeon::net
