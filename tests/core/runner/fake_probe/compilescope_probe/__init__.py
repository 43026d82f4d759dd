"""A fake probe for testing core's runner: it speaks the protocol, then
misbehaves in the way --model asks (crash, hang, garbage, ...)."""
