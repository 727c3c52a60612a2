"""Stand-ins the tests and the benchmarks share, shipped with the package (as httpx ships
`MockTransport`): a fake OpenAI-compatible provider (`openai_server`, its script in
`openai_script`) and real speech made on this machine (`speech`). Nothing in the service
imports them."""
