"""A small OpenAI-compatible streaming server for the serving benchmark's tests.

It streams `tokens` chunks for each request: the first after `first_delay` seconds, then one every
`token_delay` seconds, then a usage chunk and `[DONE]`, like vLLM with include_usage.
"""

from __future__ import annotations

import asyncio
import json

from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse


def streaming_app(tokens: int = 8, first_delay: float = 0.05, token_delay: float = 0.01) -> FastAPI:
    app = FastAPI()
    app.state.requests = 0

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> StreamingResponse:
        body = await request.json()
        app.state.requests += 1
        count = min(tokens, int(body.get("max_tokens", tokens)))

        async def stream():
            yield f"data: {json.dumps({'choices': [{'delta': {'role': 'assistant'}}]})}\n\n"  # no text: not a token
            await asyncio.sleep(first_delay)
            for i in range(count):
                if i:
                    await asyncio.sleep(token_delay)
                yield f"data: {json.dumps({'choices': [{'delta': {'content': f'tok{i} '}}]})}\n\n"
            yield f"data: {json.dumps({'choices': [], 'usage': {'completion_tokens': count}})}\n\n"
            yield "data: [DONE]\n\n"

        return StreamingResponse(stream(), media_type="text/event-stream")

    return app
