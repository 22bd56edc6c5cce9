import asyncio as __dsh_asyncio
