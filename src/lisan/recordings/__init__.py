"""Retained recordings: where a user's audio is kept, who has any, and removing it. Commands
store through it (only while consent allows), deletion and its purge (`tasks`) remove through it."""
