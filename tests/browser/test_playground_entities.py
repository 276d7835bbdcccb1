"""The playground's entities.js alone, in Debian's Chromium: a message's text and entities in,
the DOM it builds out.

Each case's DOM is read back as its innerHTML, where text stays escaped: text that looks like
HTML reads `&lt;b&gt;`, so markup in a message could never pass for an element here. Offsets
are UTF-16 code units, as Telegram counts them: 🟦 and 👍 are two units each.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.emulator.html import parse_html
from bot.playground.web import STATIC
from tests.support.browser import chromium, modules_page

# Each case's message rendered, its clicks going nowhere, and read back as [innerHTML, class].
RENDER = """async (cases) => {
  const { renderText } = await import("./entities.js");
  return cases.map(([message, commands]) => {
    const node = renderText(message, { commands, onCommand: () => {}, onLink: () => {} });
    return [node.innerHTML, node.className];
  });
}"""


def entity(kind: str, offset: int, length: int, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "offset": offset, "length": length, **extra}


def link(url: str, text: str) -> str:
    """A safe link as entities.js builds it."""
    return f'<a href="{url}" rel="noopener noreferrer" target="_blank" title="{url}">{text}</a>'


GRID = "🟦🟦🟧⭐\n🟦🟦🟦🟦"
PARSED = parse_html(
    '<b>🟦 bold <i>both</i></b> 👍 <a href="https://t.me/x">x</a> <code>&lt;i&gt;</code>'
)
CASES = [
    pytest.param(
        {
            "text": "bold italic under strike code",
            "entities": [
                entity("bold", 0, 4),
                entity("italic", 5, 6),
                entity("underline", 12, 5),
                entity("strikethrough", 18, 6),
                entity("code", 25, 4),
            ],
        },
        False,
        "<b>bold</b> <i>italic</i> <u>under</u> <s>strike</s> <code>code</code>",
        id="styles",
    ),
    pytest.param(
        {
            "text": "see:\np = 1\nafter",
            "entities": [entity("pre", 5, 5, language="python")],
        },
        False,
        'see:\n<pre data-language="python">p = 1</pre>after',
        id="pre-ends-its-line",
    ),
    pytest.param(
        {"text": "quoted\nnext", "entities": [entity("blockquote", 0, 6)]},
        False,
        "<blockquote>quoted</blockquote>next",
        id="blockquote-ends-its-line",
    ),
    pytest.param(
        {
            "text": "site https://example.org and deep",
            "entities": [
                entity("url", 5, 19),
                entity("text_link", 29, 4, url="https://t.me/bot?start=x"),
            ],
        },
        False,
        f"site {link('https://example.org', 'https://example.org')} and "
        f"{link('https://t.me/bot?start=x', 'deep')}",
        id="links",
    ),
    pytest.param(
        {
            "text": "bad one and tg",
            "entities": [
                entity("text_link", 0, 7, url="javascript:alert(1)"),
                entity("text_link", 12, 2, url="tg://resolve?domain=bot"),
            ],
        },
        False,
        f"<a>bad one</a> and {link('tg://resolve?domain=bot', 'tg')}",
        id="only-http-and-tg-links-link",
    ),
    pytest.param(
        {
            "text": "bold and italic, then plain",
            "entities": [entity("italic", 9, 6), entity("bold", 0, 15)],  # sorted by the page
        },
        False,
        "<b>bold and <i>italic</i></b>, then plain",
        id="nested",
    ),
    pytest.param(
        {
            "text": "boldital code",
            "entities": [entity("bold", 0, 4), entity("italic", 4, 4), entity("code", 9, 4)],
        },
        False,
        "<b>bold</b><i>ital</i> <code>code</code>",
        id="adjacent",
    ),
    pytest.param(
        {
            "text": "one two three",
            "entities": [
                entity("bold", 0, 13),
                entity("italic", 4, 9),
                entity("underline", 8, 5),
            ],
        },
        False,
        "<b>one <i>two <u>three</u></i></b>",
        id="nested-three-deep-ending-together",
    ),
    pytest.param(
        {"text": "🟦 bold 👍🏽 b", "entities": [entity("bold", 3, 4), entity("italic", 8, 4)]},
        False,
        "🟦 <b>bold</b> <i>👍🏽</i> b",
        id="utf16-surrogates",
    ),
    pytest.param(
        {"text": PARSED.text, "entities": PARSED.entities},
        False,
        f"<b>🟦 bold <i>both</i></b> 👍 {link('https://t.me/x', 'x')} <code>&lt;i&gt;</code>",
        id="the-emulators-own-parse",
    ),
    pytest.param(
        {"text": "<b>not bold</b> & <img src=x onerror=alert(1)>"},
        False,
        "&lt;b&gt;not bold&lt;/b&gt; &amp; &lt;img src=x onerror=alert(1)&gt;",
        id="html-looking-text-stays-text",
    ),
    pytest.param(
        {
            "text": "<script>alert(1)</script> x",
            "entities": [
                entity("code", 0, 25),
                entity("text_link", 26, 1, url='https://e.org/"onclick="alert(1)'),
            ],
        },
        False,
        "<code>&lt;script&gt;alert(1)&lt;/script&gt;</code> "
        + link("https://e.org/&quot;onclick=&quot;alert(1)", "x"),
        id="html-looking-code-and-url-stay-text",
    ),
    pytest.param(
        {"text": "secret", "entities": [entity("spoiler", 0, 6)]},
        False,
        '<span class="spoiler" title="Spoiler: click to reveal">secret</span>',
        id="spoiler",
    ),
    pytest.param(
        {
            "text": "@anna #tag",
            "entities": [entity("mention", 0, 5), entity("hashtag", 6, 4)],
        },
        False,
        "<span>@anna</span> <span>#tag</span>",
        id="other-entities-are-plain",
    ),
    pytest.param(
        {"text": "ab", "entities": [entity("bold", 1, 0)]},
        False,
        "ab",
        id="empty-entities-are-dropped",
    ),
    pytest.param(
        {"text": f"Score: 4\n{GRID}\nafter"},
        False,
        f'Score: 4\n<span class="emoji-grid">{GRID}</span>after',
        id="emoji-grid",
    ),
    pytest.param(
        {"text": "Try /new or /rules@bot, and/or /x. /help", "entities": [entity("code", 35, 5)]},
        True,
        'Try <span class="command">/new</span> or <span class="command">/rules@bot</span>, '
        'and/or <span class="command">/x</span>. <code>/help</code>',
        id="the-bots-commands-in-plain-text",
    ),
    pytest.param(
        {"text": "/start then /new", "entities": [entity("bot_command", 0, 6)]},
        False,
        '<span class="command">/start</span> then /new',
        id="a-players-commands-only-as-entities",
    ),
    pytest.param(
        {
            "caption": "card of anna",
            "caption_entities": [entity("bold", 8, 4)],
            "photo": [{"file_id": "x"}],
        },
        False,
        "card of <b>anna</b>",
        id="caption",
    ),
]


async def test_entities_become_dom_of_text_nodes_and_elements_only():
    async with chromium() as browser:
        page = await modules_page(browser, STATIC)
        shown = await page.evaluate(RENDER, [[c.values[0], c.values[1]] for c in CASES])
    for case, (html, class_name) in zip(CASES, shown, strict=True):
        assert class_name == "text", case.id
        assert html == case.values[2], case.id


# Clicks are handed to the caller; a link's own navigation is prevented; a spoiler reveals.
CLICKS = """async () => {
  const { renderText } = await import("./entities.js");
  const seen = [];
  const message = {
    text: "/start and /rules, tap secret or home",
    entities: [
      { type: "bot_command", offset: 0, length: 6 },
      { type: "spoiler", offset: 23, length: 6 },
      { type: "text_link", offset: 33, length: 4, url: "https://t.me/bot?start=home" },
    ],
  };
  const node = renderText(message, {
    commands: true,
    onCommand: (command) => seen.push(["command", command]),
    onLink: (url) => seen.push(["link", url]),
  });
  document.body.append(node);
  let prevented = null;
  document.addEventListener("click", (event) => {
    if (event.target.tagName === "A") prevented = event.defaultPrevented;
  });
  for (const command of node.querySelectorAll(".command")) command.click();
  node.querySelector("a").click();
  const spoiler = node.querySelector(".spoiler");
  spoiler.click();
  return { seen, prevented, spoiler: spoiler.className, at: location.href };
}"""


async def test_clicks_go_to_the_callers_and_no_link_navigates_itself():
    async with chromium() as browser:
        page = await modules_page(browser, STATIC)
        clicked = await page.evaluate(CLICKS)
    assert clicked["seen"] == [
        ["command", "/start"],
        ["command", "/rules"],
        ["link", "https://t.me/bot?start=home"],
    ]
    assert clicked["prevented"] is True
    assert clicked["spoiler"] == "spoiler revealed"
    assert clicked["at"] == "http://modules.test/"
