"""Campaign lifecycle: draft → open ⇄ complete → closed. Existing rows: active → open, paused →
closed (the owner reopens it); whether an open one is complete is worked out at its next
rating request, by the service that owns that rule."""

from django.db import migrations, models

OLD_TO_NEW = {"active": "open", "paused": "closed"}


def forwards(apps, schema_editor):
    Campaign = apps.get_model("rating", "Campaign")
    for old, new in OLD_TO_NEW.items():
        Campaign.objects.filter(status=old).update(status=new)


def backwards(apps, schema_editor):
    Campaign = apps.get_model("rating", "Campaign")
    Campaign.objects.filter(status__in=["open", "complete", "draft"]).update(status="active")


class Migration(migrations.Migration):
    dependencies = [
        ("rating", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="campaign",
            name="status_changed_at",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.AlterField(
            model_name="campaign",
            name="status",
            field=models.CharField(
                choices=[
                    ("draft", "Draft"),
                    ("open", "Open"),
                    ("complete", "Complete"),
                    ("closed", "Closed"),
                ],
                default="open",
                max_length=10,
            ),
        ),
        migrations.RunPython(forwards, backwards),
    ]
