"""Transports: adapt real pipes and sockets to the session's message stream."""
