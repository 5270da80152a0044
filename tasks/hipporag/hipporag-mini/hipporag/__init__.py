"""A miniature HippoRAG: offline indexing into a schemaless knowledge graph, online retrieval by Personalized
PageRank. The "LLM" is a deterministic stub (`hipporag.openie`) and the retrieval encoder a fixed hashed
character n-gram embedding (`hipporag.encoder`)."""
