"""The client of an OpenAI-compatible LLM endpoint (pure Python, standard library only):
one guarded HTTP POST (:mod:`.http`), a few requests in flight at once (:mod:`.pool`),
the judge of perceived empathy (:mod:`.judge`), the suggest client (:mod:`.suggest_client`)
with its prompts (:mod:`.prompts`), and the tolerant reading of replies (:mod:`.replies`)."""
