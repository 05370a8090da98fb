"""Studies on any judgments: a dataset of their own, weights from a release, a campaign or +1,
several criteria, excluded systems and leave-one-out."""

import django.db.models.deletion
from django.db import migrations, models


def dataset_of_release(apps, schema_editor):
    study_model = apps.get_model("study", "CorrelationStudy")
    for study in study_model.objects.select_related("release"):
        study.dataset_id = study.release.dataset_id
        study.criteria = [study.criterion] if study.criterion else []
        study.save(update_fields=["dataset", "criteria"])


class Migration(migrations.Migration):
    dependencies = [
        ("datasets", "0001_initial"),
        ("rating", "0001_initial"),
        ("study", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="correlationstudy",
            name="dataset",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="studies",
                to="datasets.dataset",
            ),
        ),
        migrations.AddField(
            model_name="correlationstudy",
            name="criteria",
            field=models.JSONField(
                blank=True, default=list, help_text="Criterion names; empty means the first one."
            ),
        ),
        migrations.RunPython(dataset_of_release, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="correlationstudy",
            name="dataset",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="studies",
                to="datasets.dataset",
            ),
        ),
        migrations.RemoveField(model_name="correlationstudy", name="criterion"),
        migrations.AddField(
            model_name='correlationstudy',
            name='combine',
            field=models.CharField(choices=[('separate', 'Each criterion side by side'), ('mean', 'The mean of the criteria')], default='separate', max_length=10),
        ),
        migrations.AddField(
            model_name='correlationstudy',
            name='excluded_systems',
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AddField(
            model_name='correlationstudy',
            name='leave_one_out',
            field=models.CharField(choices=[('auto', "When a system's outputs coincide with references"), ('on', 'Always'), ('off', 'Never')], default='auto', max_length=4),
        ),
        migrations.AddField(
            model_name='correlationstudy',
            name='weight_campaign',
            field=models.ForeignKey(blank=True, help_text='A rating campaign on references whose current weights the metrics use.', limit_choices_to={'subject': 'references'}, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='weight_studies', to='rating.campaign'),
        ),
        migrations.AddField(
            model_name='correlationstudy',
            name='weight_source',
            field=models.CharField(choices=[('release', "A frozen release's weights"), ('campaign', "A rating campaign's current weights"), ('uniform', 'Every reference counts +1 (no ratings)')], default='release', max_length=10),
        ),
        migrations.AlterField(
            model_name='correlationstudy',
            name='release',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='studies', to='releases.release'),
        ),
    ]
